# One image for the API and the workers. CPU wheels of torch by default; a CUDA index as
# TORCH_INDEX builds a GPU worker (docker-compose.yml's `gpu` profile does).
#   PYTHON_IMAGE     the base: any Debian-based image with Python 3.11+ and ca-certificates
#   TORCH_INDEX      where torch and torchvision come from (pip's extra index)
#   EXTRA_CA_CERTS   PEM certificates to trust besides the base's, e.g. a TLS-intercepting
#                    proxy's: pip here and the service's downloads (datasets) trust them
#   PIP_INDEX_URL, PIP_CONSTRAINT   pip's own settings, for a mirror or pinned versions
ARG PYTHON_IMAGE=python:3.11-slim
FROM ${PYTHON_IMAGE}

ARG TORCH_INDEX=https://download.pytorch.org/whl/cpu
ARG EXTRA_CA_CERTS=
ARG PIP_INDEX_URL
ARG PIP_CONSTRAINT
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt

RUN if [ -n "$EXTRA_CA_CERTS" ]; then \
      printf '%s\n' "$EXTRA_CA_CERTS" > /usr/local/share/ca-certificates/extra.crt \
      && update-ca-certificates; \
    fi \
    && useradd --create-home --uid 1000 fedwatch
WORKDIR /app

# The dependencies first, as pyproject.toml lists them: a change of the code alone
# reuses this layer (torch and the rest) from the build cache. The client's distribution
# (client/pyproject.toml, standard library only) is built from the tree below.
COPY pyproject.toml ./
RUN python -c "import tomllib; d = tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']; \
print(*(r for r in d if not r.startswith('fedwatch-client')), sep='\n')" > /tmp/requirements.txt \
    && pip install --extra-index-url "$TORCH_INDEX" -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

COPY README.md ./
COPY client ./client
COPY api ./api
COPY db ./db
COPY worker ./worker
COPY fedwatch ./fedwatch
COPY frontend ./frontend
# The full distribution depends on the client's, built from ./fedwatch.
RUN pip install --no-deps ./client . \
    && mkdir -p /data /var/lib/fedwatch && chown fedwatch /data /var/lib/fedwatch

USER fedwatch
ENV FEDWATCH_DATA_ROOT=/data FEDWATCH_FRONTEND_DIR=/app/frontend
EXPOSE 8000
CMD ["fedwatch", "serve", "--host", "0.0.0.0", "--port", "8000"]
