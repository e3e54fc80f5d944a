package connectgo

// Limited is limited, for tests that serve NewHandler on an httptest server.
var Limited = limited
