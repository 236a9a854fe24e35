public import Foundation

/// `GET /vault/search?q=…&under=…&limit=…`: a plain vault's current notes matching `q` by name,
/// frontmatter values or body, best first. Words must all occur, `"a phrase"` in order, `word*`
/// as a prefix; letter case and accents do not matter.
public struct SearchResponse: Codable, Sendable, Equatable {
    public var query: String
    public var results: [SearchHit]

    public init(query: String, results: [SearchHit]) {
        self.query = query
        self.results = results
    }
}

/// One note found: its current version, and where the words were found.
public struct SearchHit: Codable, Sendable, Equatable {
    public var path: VaultPath
    public var version: Int
    public var sizeBytes: Int64
    public var modifiedAt: Date
    /// A few words around the matches, each match between `«` and `»` (the note's own text, not HTML).
    public var snippet: String

    public init(path: VaultPath, version: Int, sizeBytes: Int64, modifiedAt: Date, snippet: String) {
        self.path = path
        self.version = version
        self.sizeBytes = sizeBytes
        self.modifiedAt = modifiedAt
        self.snippet = snippet
    }

    enum CodingKeys: String, CodingKey {
        case path, version, snippet
        case sizeBytes = "size_bytes"
        case modifiedAt = "modified_at"
    }

    /// The marks around each match in ``snippet``.
    public static let markStart: Character = "«"
    public static let markEnd: Character = "»"
}
