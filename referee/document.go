package referee

// document returns a transcript record (one line of JSON) as the match's
// file holds it: the record as the journal has it, ending with a newline.
// It is not laid out again: a file is read with any JSON viewer, and the
// referee writes one per match.
func document(record []byte) []byte {
	out := make([]byte, len(record)+1)
	copy(out, record)
	out[len(record)] = '\n'
	return out
}
