"""What analysts read: read-only warehouse access, the paper tables, figures, report and `show`."""
