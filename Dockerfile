# One image for the API and the workers. CPU wheels of torch by default; a CUDA index as
# TORCH_INDEX builds a GPU worker (docker-compose.yml's `gpu` profile does).
FROM python:3.11-slim

ARG TORCH_INDEX=https://download.pytorch.org/whl/cpu
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1

RUN useradd --create-home --uid 1000 fedwatch
WORKDIR /app

COPY pyproject.toml README.md ./
COPY client ./client
COPY api ./api
COPY db ./db
COPY worker ./worker
COPY fedwatch ./fedwatch
COPY frontend ./frontend
# The full distribution depends on the client's (client/pyproject.toml), built from ./fedwatch.
RUN pip install --extra-index-url "$TORCH_INDEX" ./client . \
    && mkdir -p /data /var/lib/fedwatch && chown fedwatch /data /var/lib/fedwatch

USER fedwatch
ENV FEDWATCH_DATA_ROOT=/data FEDWATCH_FRONTEND_DIR=/app/frontend
EXPOSE 8000
CMD ["fedwatch", "serve", "--host", "0.0.0.0", "--port", "8000"]
