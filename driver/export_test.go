package driver

// Internals the external tests (package driver_test, which may import
// drivertest) read.
var (
	Target     = target
	TextTokens = textTokens
)

// UnknownImageTokens is what an image the estimate cannot read counts.
const UnknownImageTokens = unknownImageTokens
