import Foundation
import Postgres

/// SQL for the server's full-text search of plain vaults' notes (migration 36): texts kept by
/// content hash, names through `file_state`'s title index, results from the vault's current notes.
enum NoteSearchQueries {
    /// A note's name as searched: its file name without the extension, in the index's exact
    /// form (`file_state_title`), so a query naming it uses the index.
    static let titleVector = "to_tsvector('vaultsync_search'::regconfig, regexp_replace(regexp_replace(f.path, '^.*/', ''), '\\.[^.]*$', ''))"
    /// The paths searched: notes as the web app knows them (``WebApp/isNote(_:)``).
    static let isNote = "lower(f.path) ~ '\\.(md|markdown|txt)$'"

    /// Keeps the texts of `notes` (contents' hashes) not kept yet, from `texts`, with their words
    /// (``NoteText/vector``), in one statement. A content whose blob is gone meanwhile is skipped.
    /// Each lookup probes an index once a note (`LATERAL … LIMIT 1`): as semi- and anti-joins the
    /// planner may hash the whole vault's blobs for an edit of one note (it did: in a vault of
    /// 10,000 notes an edit cost 1.3 ms more).
    /// - Returns: those of `notes` neither kept nor in `texts`.
    @discardableResult
    static func keep(_ db: PostgresConnection, vaultID: UUID, notes: [String], texts: [(hash: String, text: NoteText)]) throws -> [String] {
        guard !notes.isEmpty else { return [] }
        // The texts and vectors travel in their binary formats: reading them as array literals
        // was most of what keeping them cost PostgreSQL.
        let columns: [any PostgresBindable] = [
            texts.map(\.hash), texts.map { PostgresBinaryText($0.text.values) }, texts.map { PostgresBinaryText($0.text.body) }, texts.map(\.text.vector),
        ]
        // What a write most often sends: every note's text in hand, so none is left unread.
        if Set(notes).isSubset(of: texts.map(\.hash)) {
            try db.query(insertTexts(from: "unnest($2::text[], $3::text[], $4::text[], $5::tsvector[]) AS t(h, v, b, d)"), [vaultID] + columns)
            return []
        }
        return try db.query(
            """
            WITH given AS (SELECT * FROM unnest($3::text[], $4::text[], $5::text[], $6::tsvector[]) AS t(h, v, b, d)),
            kept AS (\(insertTexts(from: "given t")))
            SELECT u.h FROM unnest($2::text[]) AS u(h)
            LEFT JOIN LATERAL (SELECT 1 AS found FROM note_texts n WHERE n.vault_id = $1 AND n.content_hash = u.h LIMIT 1) n ON true
            WHERE n.found IS NULL AND NOT EXISTS (SELECT 1 FROM given g WHERE g.h = u.h)
            """, [vaultID, notes] + columns
        ).map { try $0.string(0) }
    }

    /// Keeps the texts of `source`'s rows `t` (hash `h`, values `v`, body `b`, vector `d`) of the
    /// vault `$1` whose blob is held.
    private static func insertTexts(from source: String) -> String {
        """
        INSERT INTO note_texts (vault_id, content_hash, text, document)
        SELECT $1, t.h, CASE WHEN t.v = '' THEN t.b ELSE t.v || E'\\n\\n' || t.b END, t.d
        FROM \(source), LATERAL (SELECT 1 FROM blobs x WHERE x.vault_id = $1 AND x.content_hash = t.h LIMIT 1) held
        ON CONFLICT DO NOTHING
        """
    }

    /// Whether the vault holds notes written before search was kept (migration 36).
    static func unindexed(_ db: PostgresConnection, vaultID: UUID) throws -> Bool {
        try db.query("SELECT search_unindexed FROM vaults WHERE id = $1", [vaultID]).first.map { try $0.bool(0) } ?? false
    }

    static func setUnindexed(_ db: PostgresConnection, vaultID: UUID, _ unindexed: Bool) throws {
        try db.query("UPDATE vaults SET search_unindexed = $2 WHERE id = $1", [vaultID, unindexed])
    }

    /// The contents of the vault's current notes whose text is not kept, at most `limit`.
    static func unread(_ db: PostgresConnection, vaultID: UUID, limit: Int) throws -> [String] {
        try db.query(
            """
            SELECT DISTINCT f.content_hash FROM file_state f
            WHERE f.vault_id = $1 AND NOT f.is_deleted AND \(isNote)
              AND NOT EXISTS (SELECT 1 FROM note_texts n WHERE n.vault_id = f.vault_id AND n.content_hash = f.content_hash)
            LIMIT $2
            """, [vaultID, limit]
        ).map { try $0.string(0) }
    }

    /// One note found.
    struct Hit: Sendable, Equatable {
        let path: String
        let version: Int
        let sizeBytes: Int64
        let modifiedAt: Date
        /// Where the words were found, each match between the marks asked for, on one line.
        let snippet: String
    }

    /// How many notes one search ranks at most: a query most notes match (a word in every
    /// other note) is ranked among the first this many found, so that it answers as fast as any.
    static let rankedAtMost = 2_000

    /// The vault's current notes under `prefix` matching `query` (``SearchQuery/tsquery(_:any:)``: the
    /// words ``SearchVector`` keeps)
    /// by name, frontmatter values and text together: the best `limit`, ranked by `ts_rank` (a name
    /// weighs most), each with a snippet. The candidates come from the indexes: notes whose text
    /// holds every term (at most ``rankedAtMost``), and notes whose name holds any term (the rest of
    /// the query may be in their text); the whole query is then matched on both.
    static func search(
        _ db: PostgresConnection, vaultID: UUID, query: String, anyTerm: String, prefix: String, limit: Int, marks: (start: Character, end: Character)
    ) throws -> [Hit] {
        try db.query(
            """
            WITH q AS (SELECT $2::tsquery AS query, $5::tsquery AS any_term),
            texted AS (
                SELECT f.path, f.version, f.size_bytes, f.updated_at, f.content_hash, setweight(\(titleVector), 'A') || n.document AS document
                FROM note_texts n JOIN file_state f ON f.vault_id = n.vault_id AND f.content_hash = n.content_hash AND NOT f.is_deleted, q
                WHERE n.vault_id = $1 AND n.document @@ q.query AND \(isNote) AND starts_with(f.path, $3)
                LIMIT $8
            ),
            titled AS (
                SELECT f.path, f.version, f.size_bytes, f.updated_at, f.content_hash, setweight(\(titleVector), 'A') || coalesce(n.document, ''::tsvector) AS document
                FROM file_state f LEFT JOIN note_texts n ON n.vault_id = f.vault_id AND n.content_hash = f.content_hash, q
                WHERE f.vault_id = $1 AND NOT f.is_deleted AND \(titleVector) @@ q.any_term AND \(isNote) AND starts_with(f.path, $3)
                  AND NOT EXISTS (SELECT 1 FROM texted t WHERE t.path = f.path)
            ),
            best AS (
                SELECT c.*, ts_rank(c.document, q.query) AS rank FROM (SELECT * FROM texted UNION ALL SELECT * FROM titled) c, q
                WHERE c.document @@ q.query
                ORDER BY rank DESC, c.path LIMIT $4
            )
            SELECT b.path, b.version, b.size_bytes, b.updated_at,
                ts_headline('vaultsync_search', coalesce(n.text, ''), q.query,
                    'StartSel=' || $6 || ', StopSel=' || $7 || ', MaxWords=24, MinWords=10, MaxFragments=2, FragmentDelimiter=" … "')
            FROM best b LEFT JOIN note_texts n ON n.vault_id = $1 AND n.content_hash = b.content_hash, q
            ORDER BY b.rank DESC, b.path
            """, [vaultID, query, prefix, limit, anyTerm, String(marks.start), String(marks.end), rankedAtMost]
        ).map {
            Hit(path: try $0.string(0), version: try $0.int(1), sizeBytes: try $0.int64(2), modifiedAt: try $0.date(3),
                snippet: try $0.string(4).split(whereSeparator: \.isNewline).joined(separator: " "))
        }
    }
}
