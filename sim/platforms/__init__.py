"""One module per platform: its world tables (`tables(ctx)`) and its endpoints (`ENDPOINTS`)."""

from sim.platforms import (
    assembly,
    dart,
    ex,
    fsc,
    gg,
    hrd,
    kdic,
    krx,
    law,
    longtail,
    neis,
    qnet,
    schoolinfo,
    seoul,
)

PLATFORMS = [dart, krx, fsc, kdic, ex, seoul, neis, schoolinfo, hrd, qnet, law, assembly, gg, longtail]
