# fairval's container image: `fairval serve` with its Streamlit workers behind HAProxy, as a non-root user,
# the SQLite database on the /data volume (or FAIRVAL_DB=postgresql://...), HTTPS from mounted certificate
# files. docs/deployment.md shows it run; compose.yaml runs it beside PostgreSQL. `Containerfile` (Podman's
# name) links here: Docker's BuildKit fails on a Dockerfile that is a link (moby/buildkit#2119), Podman reads either.
#
#   podman build --format docker -t fairval .   (or docker build; the docker format keeps the HEALTHCHECK;
#                                                 --build-arg BASE=... for another Debian 12 image)
#
# BASE is a plain Debian 12 (bookworm): fairval runs on Debian's Python 3.11 and HAProxy, the versions its
# tests run on. The tests build this file on a base made from Debian's packages (tests/e2e/test_container_server.py).
ARG BASE=docker.io/library/debian:bookworm-slim
FROM $BASE

# HAProxy may bind 443 and 80 as the unprivileged user (file capability; the container keeps
# NET_BIND_SERVICE by default in Docker and Podman). tini is PID 1: it passes SIGTERM on to `fairval serve`,
# which stops HAProxy and every worker, and reaps what exits.
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        python3 python3-venv haproxy tini ca-certificates libcap2-bin \
    && setcap cap_net_bind_service=+ep /usr/sbin/haproxy \
    && DEBIAN_FRONTEND=noninteractive apt-get purge -y libcap2-bin \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --user-group --create-home --home-dir /home/fairval \
        --shell /usr/sbin/nologin fairval \
    && install -d -o fairval -g fairval -m 0750 /data

# The dependencies first, pinned by constraints.txt (the set CI tests), in a layer of their own: a change to
# fairval's code rebuilds only the layer below. With the `sso` extra when pyproject.toml has one (Authlib, for
# researchers' single sign-on): a lab's image can use its identity provider without rebuilding.
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
# Behind a proxy that re-signs HTTPS: mount its CA bundle for the build and name it, e.g.
# --volume /etc/ssl/certs/ca-certificates.crt:/run/build-ca.crt:ro --build-arg PIP_CERT=/run/build-ca.crt
ARG PIP_CERT
COPY pyproject.toml constraints.txt /src/
RUN python3 -m venv /opt/fairval \
    && /opt/fairval/bin/pip install -q --upgrade "pip>=24" \
    && /opt/fairval/bin/python -c "import tomllib; p = tomllib.load(open('/src/pyproject.toml', 'rb'))['project']; print('\n'.join(p['dependencies'] + p.get('optional-dependencies', {}).get('sso', [])))" > /src/requirements.txt \
    && /opt/fairval/bin/pip install -q -c /src/constraints.txt -r /src/requirements.txt

COPY . /src/
RUN /opt/fairval/bin/pip install -q --no-deps -c /src/constraints.txt /src \
    && install -m 0755 /src/deploy/container/entrypoint.py /usr/local/bin/fairval-container \
    && rm -rf /src

ENV PATH=/opt/fairval/bin:$PATH \
    FAIRVAL_DB=/data/fairval.db \
    FAIRVAL_WORKERS=2 \
    PYTHONUNBUFFERED=1
USER fairval
WORKDIR /data
VOLUME /data
# 443: HTTPS, and 80: its redirect, when a certificate is mounted (/tls/fullchain.pem, /tls/privkey.pem);
# 8080: plain HTTP otherwise (behind a proxy of your own)
EXPOSE 443 80 8080
HEALTHCHECK --interval=30s --timeout=10s --start-period=120s --retries=3 CMD ["fairval-container", "health"]
ENTRYPOINT ["/usr/bin/tini", "--", "fairval-container"]
CMD ["serve"]
