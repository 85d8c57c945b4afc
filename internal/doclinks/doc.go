// Package doclinks checks the links of the project's Markdown documentation: every relative link
// of README.md and docs/*.md must name a file of the repository, and every #fragment a heading (or
// an explicit anchor) of the file it points into, as GitHub renders them. `make lint` runs it
// (go test ./internal/doclinks); Slug is also how the HTML report links a clause to its text.
//
//	problems, err := doclinks.Check(root, []string{"README.md", "docs/spi.md"})
//	for _, p := range problems { fmt.Println(p) } // docs/wire.md:12: goldens.md#fakes: no heading "fakes" in docs/goldens.md
package doclinks
