# redis:7's stand-in: Debian's Redis, started as the upstream image starts it (in /data,
# protected mode off: other containers reach it).
ARG BASE
FROM ${BASE}
RUN install -d -o redis -g redis /data
WORKDIR /data
USER redis
ENTRYPOINT ["redis-standin.sh"]
CMD ["redis-server"]
COPY redis-standin.sh /usr/local/bin/
