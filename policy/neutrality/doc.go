// Package neutrality finds places where provider-neutral files name a
// provider, vendor, model or advisor. It is the engine behind
// `git reason check neutrality` and does no I/O: it is handed the
// configuration's text, the names to look for (as [Term] values) and the
// paths and contents of files, and says which files it covers and what they
// hold. Gathering them (the declarations in share/ with overlays, the files
// of the work tree, the index or a range of commits) is the operations
// layer's job.
//
// # Matching
//
// Text is split into words: maximal runs of letters and digits (ASCII, and
// any Unicode letter, mark or digit), cut further where the case of ASCII
// letters changes ("acmeCloud" is acme|Cloud, "ACMECloud" is ACME|Cloud)
// and where ASCII letters meet ASCII digits ("x15pro" is x|15|pro).
// Everything else separates words, including non-ASCII punctuation and
// invalid UTF-8. A term's name is split the same way and its words
// lowercased and joined into a key ("Acme Cloud" is "acmecloud",
// "x-1.5-pro" is "x15pro").
//
// A term matches a run of consecutive words of one line when the run starts
// at a word start, ends at a word end, and its words, lowercased and joined,
// equal the term's key. Consecutive words of the run may touch (a case or
// digit change) or be separated by exactly one of space, tab, '_', '-' or
// '.'. So "Acme Cloud" is found in acme_cloud_client, AcmeCloudClient,
// ACME_CLOUD, acme-cloud, acme.cloud, acmecloud and "Acme Cloud", and
// "x-1.5-pro" in X_1_5_PRO, x15Pro and x-1.5-pro-max; while a term "ace" is
// not found in surface, acetone or replaceable, nor "Gem" in Gemfile,
// because none of them has a word boundary around the name. The text's
// words need not split where the name's do, so "a_ce" counts as "ace"; the
// rule trades that rare case for catching acmecloud and ACMECLOUD. Case is
// folded for ASCII only.
//
// At each position the longest matching term wins and matching resumes after
// it, so overlapping terms report one violation, not two.
//
// # Files
//
// A file is checked when a neutral glob of the configuration matches it (all
// files when the configuration lists none) and no exclude glob does. The
// configuration file itself is never checked: it has to name the terms;
// nor is the repository's declarations overlay ([DeclarationsPath]),
// where its advisors, vendors and models are declared by name. A
// file whose first 8000 bytes hold a NUL byte is binary and is not checked
// (git's own rule). A caller should not read a file larger than
// [DefaultMaxFileSize] and should list it with [Result.SkipTooLarge], so
// that the result says so; symbolic links and submodules have no text of
// their own and are not checked.
//
// Globs are matched against the slash-separated path from the repository
// root: '*', '?' and '[...]' match within one path segment, a '**' segment
// matches any number of segments, and a glob that matches a directory
// matches every file below it ("share" and "share/**" are the same).
//
// # Checking
//
// [NewChecker] compiles a [Config] with the declared terms. The caller asks
// [Checker.Covers] which listed paths to read and hands each one's contents
// to [Checker.Scan], which adds to a [Result]; several goroutines may scan
// into results of their own and [Result.Merge] them. [Result.Finish] sorts
// the violations by path, line and column.
package neutrality
