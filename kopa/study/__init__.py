"""Studies that need the simulator's truth (DESIGN.md, layer `study`): `kopa study pruning`, the
fault-injection study of how EDGE's execution-grounded pruning holds up as environmental failures grow."""
