"""`distressbench build --target spark`: the build (build.py), its stages that need Spark in a
child process (stages.py), and the Python models run on Spark outside dbt (step.py)."""
