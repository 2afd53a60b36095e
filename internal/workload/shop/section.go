package shop

import "shootout/internal/sections"

// The shop's operations are a site's pages, which seed 001 timed with
// siege: its cells make siege's table in the report.
func init() { sections.Register("shop", sections.Section{Kind: sections.Pages}) }
