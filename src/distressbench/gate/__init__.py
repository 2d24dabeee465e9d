"""The gate: refuse a release that breaks the contract (manifest and files, schemas, values)."""
