"""Wire codecs generated from the canonical schema's descriptor, and the framing they share.

Nothing here is written per message: every encoder and decoder is built from
`schema.pb2().DESCRIPTOR`, so a changed proto/arena.proto changes them all.
"""
