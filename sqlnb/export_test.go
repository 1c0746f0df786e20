package sqlnb

// LooksLikeIdentifier exposes looksLikeIdentifier to the tests of package sqlnb_test.
var LooksLikeIdentifier = looksLikeIdentifier
