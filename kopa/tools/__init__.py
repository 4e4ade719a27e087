"""The tool runtime: call a catalog tool by name and get records or a typed error, on any backend."""
