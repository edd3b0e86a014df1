package cli

import "testing"

func TestRoffEscapes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`--json`, `\-\-json`},
		{`C:\dir`, `C:\edir`},
		{"a — b … c", `a \(em b ... c`},
		{"naïve", `na\[u00EF]ve`},
	} {
		if got := esc(tc.in); got != tc.want {
			t.Errorf("esc(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"set `reason.origin` once", `set \fBreason.origin\fP once`},
		{"an unpaired ` stays", "an unpaired ` stays"},
	} {
		if got := inline(tc.in); got != tc.want {
			t.Errorf("inline(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	var r roff
	r.line(".TH looks like a request")
	r.line("'so does this")
	if got, want := r.b.String(), "\\&.TH looks like a request\n\\&'so does this\n"; got != want {
		t.Errorf("text lines = %q, want %q", got, want)
	}
	if name, rest := unquote("read from `PATH` (- for stdin)"); name != "PATH" || rest != "read from PATH (- for stdin)" {
		t.Errorf("unquote = %q, %q", name, rest)
	}
}
