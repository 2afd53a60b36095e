package replay

import "shootout/internal/sections"

// A replay's operations are the capture's statement fingerprints: the
// report compares them one by one, most of the difference first.
func init() { sections.Register("replay", sections.Section{Kind: sections.Statements}) }
