FROM python:3.11-slim

RUN apt-get update && apt-get install -y --no-install-recommends git bubblewrap \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /opt/zizou
COPY requirements.lock pyproject.toml README.md ./
RUN python -m venv /opt/venv \
    && /opt/venv/bin/pip install --no-cache-dir --require-hashes -r requirements.lock
COPY zizou ./zizou
RUN /opt/venv/bin/pip install --no-cache-dir --no-deps .

RUN useradd --create-home --uid 1000 zizou
USER zizou
ENV PATH=/opt/venv/bin:$PATH \
    ZIZOU_HOME=/home/zizou/.config/zizou
WORKDIR /work
ENTRYPOINT ["zizou"]
