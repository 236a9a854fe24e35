import Foundation
import GRDB
import SyncCore

/// The device's full-text index of the notes it holds: `.vaultsync/search.db`, SQLite FTS5 (its
/// `unicode61` tokenizer with accents removed), one row per note with its name and text, its path
/// in `note_rows` (a path's row found through its key, not by scanning the index).
/// Never sent anywhere; rebuilt from the folder when missing (deleting the file is safe).
final class NoteIndex: Sendable {
    /// Files read as notes, and the largest read (a larger one is not indexed).
    static let extensions: Set<String> = ["md", "markdown", "txt"]
    static let maxBytes = 4 * 1024 * 1024

    private let db: DatabaseQueue

    init(stateFolder: URL) throws {
        db = try DatabaseQueue(path: stateFolder.appendingPathComponent("search.db").path)
        try db.write { db in
            try db.execute(sql: """
                CREATE VIRTUAL TABLE IF NOT EXISTS notes USING fts5(name, body, tokenize = 'unicode61 remove_diacritics 2');
                CREATE TABLE IF NOT EXISTS note_rows (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE);
                CREATE TABLE IF NOT EXISTS index_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                """)
        }
    }

    static func isNote(_ path: String) -> Bool {
        extensions.contains((path as NSString).pathExtension.lowercased())
    }

    /// Whether it holds every note of the folder (a build finished and no update failed since).
    func isBuilt() throws -> Bool {
        try db.read { try String.fetchOne($0, sql: "SELECT value FROM index_meta WHERE key = 'built'") != nil }
    }

    /// Each path's note as it is on disk under `root` now: indexed again, or removed when it is no
    /// note there any more. `whole`: these are every note (a build), after which the index is built.
    func update(_ paths: some Sequence<String>, root: URL, whole: Bool) throws {
        try db.write { db in
            if whole { try db.execute(sql: "DELETE FROM notes; DELETE FROM note_rows") }
            try db.execute(sql: "DELETE FROM index_meta WHERE key = 'built'")
            for path in paths {
                if !whole, let id = try Int64.fetchOne(db, sql: "SELECT id FROM note_rows WHERE path = ?", arguments: [path]) {
                    try db.execute(sql: "DELETE FROM notes WHERE rowid = ?", arguments: [id])
                    try db.execute(sql: "DELETE FROM note_rows WHERE id = ?", arguments: [id])
                }
                guard Self.isNote(path), let text = Self.text(root.appendingPathComponent(path)) else { continue }
                let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
                try db.execute(sql: "INSERT INTO note_rows (path) VALUES (?)", arguments: [path])
                try db.execute(sql: "INSERT INTO notes (rowid, name, body) VALUES (?, ?, ?)", arguments: [db.lastInsertedRowID, name, text])
            }
            try db.execute(sql: "INSERT INTO index_meta (key, value) VALUES ('built', '1')")
        }
    }

    /// Marks the index as not holding every note (an update failed): the next search builds it again.
    func forget() throws {
        try db.write { try $0.execute(sql: "DELETE FROM index_meta WHERE key = 'built'") }
    }

    /// The best `limit` notes matching `match` (``SearchQuery``), under `folder` when given, the
    /// name weighing five times the text; each with a snippet whose matches are between « and ».
    func search(_ match: String, under folder: String?, limit: Int) throws -> [LocalSearchHit] {
        let prefix = folder.map { $0 + "/" } ?? ""
        return try db.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT r.path, snippet(notes, 1, '«', '»', '…', 12), bm25(notes, 5.0, 1.0) AS rank
                    FROM notes JOIN note_rows r ON r.id = notes.rowid
                    WHERE notes MATCH ? AND substr(r.path, 1, length(?)) = ?
                    ORDER BY rank LIMIT ?
                    """, arguments: [match, prefix, prefix, limit]
            ).map { LocalSearchHit(path: $0[0], snippet: $0[1], score: -($0[2] as Double)) }
        }
    }

    /// A file's text, when it is one (UTF-8, not too large).
    private static func text(_ file: URL) -> String? {
        guard let size = try? file.resourceValues(forKeys: [.fileSizeKey]).fileSize, size <= maxBytes,
            let data = try? Data(contentsOf: file)
        else { return nil }
        return String(data: data, encoding: .utf8)
    }
}

/// One note a search found on this device.
public struct LocalSearchHit: Sendable, Equatable, Encodable {
    public var path: String
    /// Words around the matches, each match between « and ».
    public var snippet: String
    /// Higher is better (SQLite's BM25, negated).
    public var score: Double
}
