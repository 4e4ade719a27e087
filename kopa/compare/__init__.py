"""`kopa compare`: pipelines side by side on one inventory, backend and budget — above both baselines, so
that APIGen and EDGE Phase B never import each other (DESIGN.md: what they share lives below both)."""
