"""dbt's room: the dbt process the gate and the build drive (process.py), how a child process
ends with its parent (child_process.py), the gate's staging run (staging.py), the dbt relation
names the Python code reads (relations.py), and the memory a Python model hands back
(process_memory.py). dbt's own modules are imported by absolute name (`dbt.cli.main`)."""
