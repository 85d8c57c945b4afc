package reportview

import "github.com/loom-kernel/loom-conform/internal/safetext"

// visible returns p with the text a target may have supplied made visible (safetext, I-NET-8):
// an implementation's name, a store's messages, a container's logs. html/template escapes what
// HTML would read as markup; control and bidirectional characters it leaves alone, and those are
// shown as escapes instead (\x1b, \u202e).
func (p Page) visible() Page {
	p.Subject, p.Name, p.Headline = safetext.Line(p.Subject), safetext.Line(p.Name), safetext.Visible(p.Headline)
	p.Logs = safetext.Visible(p.Logs)
	p.Facts = append([]Fact(nil), p.Facts...)
	for i := range p.Facts {
		p.Facts[i].Value = safetext.Visible(p.Facts[i].Value)
	}
	p.Problems = append([]string(nil), p.Problems...)
	for i := range p.Problems {
		p.Problems[i] = safetext.Visible(p.Problems[i])
	}
	p.Items = append([]Item(nil), p.Items...)
	for i := range p.Items {
		it := &p.Items[i]
		it.Message, it.Why, it.Expected, it.Repro = safetext.Visible(it.Message), safetext.Visible(it.Why), safetext.Visible(it.Expected), safetext.Visible(it.Repro)
		it.Rerun = safetext.Visible(it.Rerun)
		it.Failed = append([]string(nil), it.Failed...)
		for j := range it.Failed {
			it.Failed[j] = safetext.Visible(it.Failed[j])
		}
	}
	p.Tables = append([]Table(nil), p.Tables...)
	for i := range p.Tables {
		rows := make([][]string, len(p.Tables[i].Rows))
		for r, row := range p.Tables[i].Rows {
			rows[r] = make([]string, len(row))
			for c, cell := range row {
				rows[r][c] = safetext.Line(cell)
			}
		}
		p.Tables[i].Rows = rows
	}
	return p
}
