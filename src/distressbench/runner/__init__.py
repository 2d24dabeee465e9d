"""The dbt process the gate and the build both drive, and how a child process ends with its parent."""
