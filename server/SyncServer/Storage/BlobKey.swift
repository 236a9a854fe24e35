package import Foundation
package import SyncProtocol

/// Where a blob lives in a store: derived from the vault and the content hash, never from the
/// path, so identical bytes are stored once per vault, renames upload nothing and old versions
/// stay addressable. Form: `vaults/<vault-uuid>/<first two hex digits>/<64 hex digits>`.
package struct BlobKey: Hashable, Sendable, CustomStringConvertible {
    package let vaultID: UUID
    package let contentHash: ContentHash

    package init(vaultID: UUID, contentHash: ContentHash) {
        self.vaultID = vaultID
        self.contentHash = contentHash
    }

    /// Parses the three path components a blob URL carries.
    package init?(vault: String, prefix: String, hex: String) {
        guard let vaultID = UUID(uuidString: vault), let hash = try? ContentHash(ContentHash.prefix + hex), hash.hex.prefix(2) == prefix else {
            return nil
        }
        self.init(vaultID: vaultID, contentHash: hash)
    }

    /// The key as a relative path.
    package var rawValue: String { Self.rawValue(vault: vaultID.uuidString.lowercased(), prefix: contentHash.hex.prefix(2), hex: contentHash.hex) }

    /// The key text for the three path components a blob URL carries, as given (what its
    /// signature covers, checked before the components are parsed).
    package static func rawValue(vault: some StringProtocol, prefix: some StringProtocol, hex: some StringProtocol) -> String { "vaults/\(vault)/\(prefix)/\(hex)" }
    package var description: String { rawValue }
}
