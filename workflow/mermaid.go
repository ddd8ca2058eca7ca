package workflow

import (
	"strconv"
	"strings"
)

// Mermaid draws the graph as a Mermaid flowchart. The text depends only on
// the declarations (nodes in declaration order, then each source's exit in
// the same order), so it can be locked with a golden file. Plain edges are
// solid arrows, branch targets dashed ones.
func (r *Runnable[S]) Mermaid() string {
	ids := make([]string, len(r.nodes))
	var b strings.Builder
	b.WriteString("flowchart TD\n")
	b.WriteString("    " + Start + "([start])\n")
	for i, n := range r.nodes {
		ids[i] = mermaidID(n.info.Name, i)
		b.WriteString("    " + ids[i] + "[\"" + mermaidText(n.info.Name) + "\"]\n")
	}
	b.WriteString("    " + End + "([end])\n")
	writeExit := func(from string, x *exit[S]) {
		arrow := " --> "
		if x.route != nil {
			arrow = " -.-> "
		}
		for _, to := range x.targetIdx {
			target := End
			if to != endIndex {
				target = ids[to]
			}
			b.WriteString("    " + from + arrow + target + "\n")
		}
	}
	writeExit(Start, &r.entry)
	for i := range r.nodes {
		writeExit(ids[i], &r.nodes[i].exit)
	}
	return b.String()
}

// mermaidID keeps a node name as its Mermaid id when Mermaid accepts it, and
// falls back to a positional id otherwise ("end" is a Mermaid keyword).
func mermaidID(name string, i int) string {
	ok := !strings.EqualFold(name, "end")
	for _, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			ok = false
			break
		}
	}
	if ok {
		return name
	}
	return "__node" + strconv.Itoa(i)
}

// mermaidText escapes a name for a quoted Mermaid label.
func mermaidText(s string) string {
	return strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;").Replace(s)
}
