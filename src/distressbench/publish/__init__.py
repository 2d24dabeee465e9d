"""The build: write-audit-publish on DuckDB (the pipeline's stages, history) and on Spark."""
