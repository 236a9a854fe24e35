import Foundation
import Postgres

/// SQL for what notes link to (``Backlinks``), kept by content hash.
enum NoteLinkQueries {
    /// A current note whose content's links are not yet kept.
    struct Unread: Sendable, Equatable {
        let contentHash: String
        let sizeBytes: Int64
    }

    /// The contents of the vault's current notes (`.md`, `.markdown`, `.txt`, as ``WebApp/isNote(_:)``)
    /// whose links are not kept yet.
    static func unread(_ db: PostgresConnection, vaultID: UUID) throws -> [Unread] {
        try db.query(
            """
            SELECT DISTINCT f.content_hash, f.size_bytes FROM file_state f
            WHERE f.vault_id = $1 AND NOT f.is_deleted AND lower(f.path) ~ '\\.(md|markdown|txt)$'
              AND NOT EXISTS (SELECT 1 FROM note_links n WHERE n.vault_id = f.vault_id AND n.content_hash = f.content_hash)
            """, [vaultID]
        ).map { Unread(contentHash: try $0.string(0), sizeBytes: try $0.int64(1)) }
    }

    /// What a content links to: the names its links name and the links as kept.
    struct Read: Sendable, Equatable {
        let contentHash: String
        let names: [String]
        let links: [String]
    }

    /// Keeps what contents link to (one statement; a content whose blob is gone meanwhile is skipped).
    static func keep(_ db: PostgresConnection, vaultID: UUID, _ read: [Read]) throws {
        guard !read.isEmpty else { return }
        // Arrays of arrays must be rectangular in Postgres: each list travels as one text,
        // joined by a character no name or link holds (control characters are no part of a path).
        let separator = "\u{1F}"
        try db.query(
            """
            INSERT INTO note_links (vault_id, content_hash, names, links)
            SELECT $1, t.h, string_to_array(t.n, $5), string_to_array(t.l, $5)
            FROM unnest($2::text[], $3::text[], $4::text[]) AS t(h, n, l)
            WHERE EXISTS (SELECT 1 FROM blobs b WHERE b.vault_id = $1 AND b.content_hash = t.h)
            ON CONFLICT DO NOTHING
            """,
            [vaultID, read.map(\.contentHash), read.map { $0.names.joined(separator: separator) }, read.map { $0.links.joined(separator: separator) }, separator])
    }

    /// The vault's current files whose content links to a file named `nameKey`, with their kept links.
    static func linking(_ db: PostgresConnection, vaultID: UUID, nameKey: String) throws -> [(source: String, links: [String])] {
        try db.query(
            """
            SELECT f.path, array_to_string(n.links, $3) FROM file_state f
            JOIN note_links n ON n.vault_id = f.vault_id AND n.content_hash = f.content_hash
            WHERE f.vault_id = $1 AND NOT f.is_deleted AND n.names @> ARRAY[$2]
            """, [vaultID, nameKey, "\u{1F}"]
        ).map { (source: try $0.string(0), links: try $0.string(1).components(separatedBy: "\u{1F}")) }
    }
}
