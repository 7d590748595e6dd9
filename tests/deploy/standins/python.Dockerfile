# python:3.11-slim's stand-in: Debian's python3 in a venv that comes first on PATH
# (`python` and `pip` as in the upstream image).
ARG BASE
FROM ${BASE}
RUN python3 -m venv /opt/python
ENV PATH=/opt/python/bin:$PATH LANG=C.UTF-8
CMD ["python"]
