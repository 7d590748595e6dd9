# postgres:16's stand-in: Debian's PostgreSQL behind an entrypoint that makes the cluster
# as the upstream one does (POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB; PGPORT).
ARG BASE
FROM ${BASE}
RUN ln -s /usr/lib/postgresql/*/bin/* /usr/local/bin/ \
    && install -d -o postgres -g postgres -m 700 /var/lib/postgresql/data \
    && install -d -o postgres -g postgres /var/run/postgresql
COPY postgres-entrypoint.sh /usr/local/bin/
ENV PGDATA=/var/lib/postgresql/data LANG=C.UTF-8
USER postgres
ENTRYPOINT ["postgres-entrypoint.sh"]
CMD ["postgres"]
