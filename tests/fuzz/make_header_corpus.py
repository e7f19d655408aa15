#!/usr/bin/env python3
"""Writes the seed corpus for the dynamic-broadcast header decoder (tests/fuzz/corpus/header).

ok-*  are well-formed frames holding a header; bad-* are damaged in one named way each. The layout is the
one documented in src/dyn/wire.hpp, little-endian throughout.
"""
import os
import struct
import sys

HANDLER = 1


def header(origin=3, tag=7, priority=0, seq=0, total=100, offset=0, length=100, route=None, flags=None,
           version=1, reserved=0, count=None):
    route = route or []
    if flags is None:
        flags = 1 if route else 1  # the first message to a receiver always carries its (maybe empty) route
    body = struct.pack('<BBHiiiQQQQI', version, flags, reserved, origin, tag, priority, seq, total, offset,
                       length, len(route) if count is None else count)
    for rank, prio, rseq, subtree in route:
        body += struct.pack('<iiQI', rank, prio, rseq, subtree)
    return body


def frame(body, payload=None, magic=0x4448, flags=0, handler=HANDLER, carried=b''):
    if carried:
        flags |= 1
        payload = len(carried)
    if payload is None:
        payload = struct.unpack_from('<Q', body, 40)[0] if len(body) >= 48 else 0
    return struct.pack('<HHIQ', magic, handler, flags, payload) + body + carried


def main(out):
    os.makedirs(out, exist_ok=True)
    chain = [(5, 1, 10, 3), (6, 0, 11, 2), (8, 0, 12, 1)]
    tree = [(5, 2, 40, 2), (6, 1, 41, 1), (4, 0, 7, 1)]
    cases = {
        'ok-p2p': frame(header()),
        'ok-empty-message': frame(header(total=0, length=0)),
        'ok-chain-route': frame(header(route=chain)),
        'ok-tree-route': frame(header(route=tree, offset=40, length=60)),
        'ok-later-segment': frame(header(flags=0, offset=50, length=50)),
        'bad-frame-short': frame(header())[:15],
        'bad-frame-magic': frame(header(), magic=0x1234),
        'ok-inline-payload': frame(header(total=5, length=5), carried=b'hello'),
        'bad-frame-flags': frame(header(), flags=2),
        'bad-inline-too-long': frame(header(), flags=1, payload=10**6),
        'bad-inline-empty': frame(header(total=0, length=0), flags=1, payload=0),
        'bad-inline-eats-header': frame(header(), flags=1, payload=len(header()) - 3),
        'bad-header-short': frame(header())[:16 + 51],
        'bad-version': frame(header(version=9)),
        'bad-flags': frame(header(flags=6)),
        'bad-reserved': frame(header(reserved=1)),
        'bad-negative-origin': frame(header(origin=-1)),
        'bad-negative-tag': frame(header(tag=-5)),
        'bad-segment-outside': frame(header(offset=90, length=20)),
        'bad-length-overflow': frame(header(total=100, offset=1, length=2**64 - 1)),
        'bad-count-huge': frame(header(route=chain, count=0xFFFFFFFF)),
        'bad-count-short': frame(header(route=chain, count=2)),
        'bad-route-truncated': frame(header(route=chain))[:-1],
        'bad-trailing-byte': frame(header(route=tree)) + b'\0',
        'bad-route-unflagged': frame(header(route=tree, flags=0)),
        'bad-subtree-zero': frame(header(route=[(5, 0, 0, 0)])),
        'bad-subtree-too-big': frame(header(route=[(5, 0, 0, 2)])),
        'bad-subtree-not-nested': frame(header(route=[(5, 0, 0, 2), (6, 0, 0, 2), (4, 0, 0, 1)])),
        'bad-duplicate-rank': frame(header(route=[(5, 0, 0, 1), (5, 0, 1, 1)])),
        'bad-origin-in-route': frame(header(origin=3, route=[(3, 0, 0, 1)])),
        'bad-negative-rank': frame(header(route=[(-2, 0, 0, 1)])),
    }
    for name, data in cases.items():
        with open(os.path.join(out, name), 'wb') as f:
            f.write(data)


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), 'corpus', 'header'))
