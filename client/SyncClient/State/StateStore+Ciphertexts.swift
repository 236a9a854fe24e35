import GRDB
public import SyncProtocol

/// `ciphertexts`: in an encrypted vault, which ciphertext (the server's `content_hash`) holds which
/// plaintext. Filled when this device encrypts or decrypts a version; read to hand the planner
/// plaintext hashes, and to push a copy or rename of a file the vault holds without uploading it.
/// See `docs/decisions/0002-encrypted-vaults.md`.
extension StateStore {
    /// A ciphertext and the plaintext it holds.
    public struct Ciphertext: Sendable, Equatable {
        public var ciphertextHash: ContentHash
        public var ciphertextSize: Int64
        public var plaintextHash: ContentHash
        public var plaintextSize: Int64

        public init(ciphertextHash: ContentHash, ciphertextSize: Int64, plaintextHash: ContentHash, plaintextSize: Int64) {
            self.ciphertextHash = ciphertextHash
            self.ciphertextSize = ciphertextSize
            self.plaintextHash = plaintextHash
            self.plaintextSize = plaintextSize
        }

        /// From a row of `ciphertext_hash, ciphertext_size, plaintext_hash, plaintext_size`.
        init(row: Row) {
            self.init(
                ciphertextHash: ContentHash(alreadyValidated: row[0]), ciphertextSize: row[1], plaintextHash: ContentHash(alreadyValidated: row[2]),
                plaintextSize: row[3])
        }
    }

    public func recordCiphertexts(_ entries: [Ciphertext]) async throws {
        guard !entries.isEmpty else { return }
        try await db.write { db in
            for entry in entries {
                try db.run(
                    "INSERT OR REPLACE INTO ciphertexts (ciphertext_hash, ciphertext_size, plaintext_hash, plaintext_size) VALUES (?, ?, ?, ?)",
                    [entry.ciphertextHash.rawValue, entry.ciphertextSize, entry.plaintextHash.rawValue, entry.plaintextSize])
            }
        }
    }

    /// Forgets ciphertexts the server no longer holds (a reused one it asked to be uploaded).
    public func forgetCiphertexts(_ hashes: [ContentHash]) async throws {
        guard !hashes.isEmpty else { return }
        try await db.write { db in
            for hash in hashes { try db.run("DELETE FROM ciphertexts WHERE ciphertext_hash = ?", [hash.rawValue]) }
        }
    }

    /// The known ones among `hashes` (ciphertext hashes), by ciphertext hash.
    public func plaintexts(of hashes: [ContentHash]) async throws -> [ContentHash: Ciphertext] {
        try await select(hashes, column: "ciphertext_hash").reduce(into: [:]) { found, entry in found[entry.ciphertextHash] = entry }
    }

    /// The rows whose `column` is one of `hashes`, read 500 at a time.
    private func select(_ hashes: [ContentHash], column: String) async throws -> [Ciphertext] {
        guard !hashes.isEmpty else { return [] }
        return try await db.read { db in
            var rows: [Ciphertext] = []
            for chunk in stride(from: 0, to: hashes.count, by: 500).map({ hashes[$0..<min($0 + 500, hashes.count)] }) {
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                rows += try Row.fetchAll(
                    db, sql: "SELECT ciphertext_hash, ciphertext_size, plaintext_hash, plaintext_size FROM ciphertexts WHERE \(column) IN (\(marks))",
                    arguments: StatementArguments(chunk.map(\.rawValue))
                ).map(Ciphertext.init(row:))
            }
            return rows
        }
    }

    /// A ciphertext known to hold each of `plaintexts` (plaintext hashes), by plaintext hash. Any
    /// will do: the push's answer says whether the server still holds it.
    public func ciphertexts(holding plaintexts: [ContentHash]) async throws -> [ContentHash: Ciphertext] {
        try await select(plaintexts, column: "plaintext_hash").reduce(into: [:]) { found, entry in found[entry.plaintextHash] = entry }
    }
}
