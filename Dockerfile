# Privacy Workbench as a public demo: non-root, health-checked, demo-sized limits.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PRIVCORE_HISTORY=/home/app/data/history.db \
    PRIVCORE_HISTORY_SCOPE=session \
    PRIVCORE_LOCAL_TABLES=0 \
    PRIVCORE_MAX_FILE_MB=50 \
    PRIVCORE_MAX_ROWS=200000 \
    PRIVCORE_MAX_COLUMNS=100 \
    PRIVCORE_MAX_PARSE_SECONDS=20 \
    PRIVCORE_MAX_CELL_CHARS=10000 \
    PRIVCORE_MAX_ROLL=200000 \
    PRIVCORE_MAX_LOCAL_RECODING_ROWS=40000 \
    PRIVCORE_MAX_AUDIT_SAMPLES=1000000 \
    PRIVCORE_AUDIT_MEMORY_MB=512 \
    PRIVCORE_MAX_RUN_MB=768 \
    PRIVCORE_MAX_HEAVY_JOBS=1 \
    PRIVCORE_WORKERS=1 \
    PRIVCORE_MAX_WORKERS=2 \
    PRIVCORE_TORCH_THREADS=1 \
    PRIVCORE_MAX_SESSION_DATASETS=3 \
    PRIVCORE_MAX_SESSION_MB=150 \
    PRIVCORE_HOUSEKEEPING_SECONDS=10 \
    MALLOC_ARENA_MAX=2

RUN useradd --create-home --uid 10001 app
WORKDIR /home/app/workbench

# The CPU build of torch keeps the image small; pass --build-arg TORCH_INDEX=… for CUDA.
ARG TORCH_INDEX=https://download.pytorch.org/whl/cpu
COPY requirements.txt .
RUN pip install --no-cache-dir --index-url "$TORCH_INDEX" torch==2.13.0 \
    && pip install --no-cache-dir -r requirements.txt

COPY --chown=app:app app.py serve.py pyproject.toml README.md ./
COPY --chown=app:app privcore ./privcore
COPY --chown=app:app ui ./ui
COPY --chown=app:app pages ./pages
COPY --chown=app:app assets ./assets
COPY --chown=app:app docs/notebooks/lessons ./docs/notebooks/lessons
COPY --chown=app:app .streamlit/config.toml ./.streamlit/config.toml
COPY --chown=app:app deploy/demo.toml ./.streamlit/demo.toml

USER app
RUN mkdir -p /home/app/data
# KACA's merge loop is compiled once (numba) and cached beside the code: compile it while
# the image is built, so that the demo's first KACA run does not wait for it.
RUN python -m privcore anonymize assets/adult/adult.csv --algorithm kaca --qi age,sex \
    --sa occupation --k 5 --hierarchy age=assets/adult/adult_hierarchy_age.csv \
    --hierarchy sex=assets/adult/adult_hierarchy_sex.csv --out /tmp/kaca_warm.csv --quiet \
    && rm /tmp/kaca_warm.csv
EXPOSE 8501

HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4).status == 200 else 1)"

# The demo overrides: smaller uploads, no usage statistics, bound to all interfaces (inside
# the container), sessions of visitors who left dropped after 30 s; serve.py adds the
# guard (no /_stcore/metrics, security headers) and the housekeeping of ui/common/hosting.py.
CMD ["python", "-m", "streamlit", "run", "serve.py", \
     "--server.address=0.0.0.0", "--server.port=8501", "--server.headless=true", \
     "--server.maxUploadSize=50", "--server.enableCORS=true", \
     "--server.disconnectedSessionTTL=30", \
     "--server.enableXsrfProtection=true", "--browser.gatherUsageStats=false", \
     "--client.showErrorDetails=none", "--client.toolbarMode=viewer"]
