package main

// The user's generated messages, in a per-schema build (see internal/userpb).
import _ "rpcarena/workers/go/internal/userpb"
