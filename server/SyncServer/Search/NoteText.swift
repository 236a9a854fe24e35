import Foundation
import SyncCore

/// What the server's search keeps of a note's bytes: its frontmatter's values (not its keys,
/// which every note shares) and its body, as UTF-8 text, and their words (``vector``). Bytes that are not UTF-8 text (a file
/// named `.md` that is not one, or holding a NUL, which PostgreSQL text cannot) give an empty
/// text: kept, so the write goes on, and found by its name only. Pure.
struct NoteText: Sendable, Equatable {
    /// The frontmatter's values, one per line.
    let values: String
    let body: String
    /// Its words as the search keeps them (``SearchVector``).
    let vector: SearchVector

    /// How much of a note is searched: the rest of a longer one is not (PostgreSQL's `tsvector`
    /// holds at most 1 MB; notes are far smaller).
    static let indexedBytes = 256 * 1024

    static let empty = NoteText(values: "", body: "")

    /// The text of a note's bytes (cut at ``indexedBytes``, at a character).
    init(_ bytes: Data) {
        let cut = bytes.prefix(Self.indexedBytes)
        guard !Self.holdsNUL(cut), let text = Self.decode(cut, whole: cut.count == bytes.count) else {
            self = .empty
            return
        }
        let note = MarkdownNote(parsing: text)
        self.init(values: (note.fields ?? []).filter { !$0.key.isEmpty }.map(\.value).filter { !$0.isEmpty }.joined(separator: "\n"), body: note.body)
    }

    init(values: String, body: String) {
        self.values = values
        self.body = body
        self.vector = SearchVector(values: values, body: body)
    }

    /// The text shown around a match: the values, then the body.
    var shown: String { values.isEmpty ? body : values + "\n\n" + body }

    /// Whether `bytes` hold a zero byte, found by `memchr` (a `Data` iterator costs a call a byte).
    private static func holdsNUL(_ bytes: Data) -> Bool {
        bytes.withUnsafeBytes { raw in raw.baseAddress.map { memchr($0, 0, raw.count) != nil } ?? false }
    }

    /// UTF-8 text; a cut note may end inside a character, which is dropped.
    private static func decode(_ bytes: Data, whole: Bool) -> String? {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        guard !whole else { return nil }
        for drop in 1...3 where bytes.count > drop {
            if let text = String(validating: bytes.dropLast(drop), as: UTF8.self) { return text }
        }
        return nil
    }
}
