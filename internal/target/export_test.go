package target

// SetFreePort replaces the port probe for a test and returns the undo.
func SetFreePort(f func() (int, error)) func() {
	freePort = f
	return func() { freePort = kernelFreePort }
}

// kernelFreePort is the probe as shipped, kept before any test replaces it.
var kernelFreePort = freePort

// FreePort is the probe as shipped.
func FreePort() (int, error) { return kernelFreePort() }
