"""A release: the contract it follows, its manifest, and folders written then renamed into place."""
