public import Foundation
public import SyncCore
import SyncProtocol

/// A vault's `.vaultsyncignore` as read at the start of a sync: its rules, and a fingerprint that
/// tells the engine when the rules changed since its cursor last moved.
public struct IgnoreFile: Sendable {
    public let rules: IgnoreRules
    /// The content hash of the file's text ("" when there is none).
    public let fingerprint: String

    public init(root: Foundation.URL) {
        let text = try? String(contentsOf: root.appendingPathComponent(".vaultsyncignore"), encoding: .utf8)
        rules = IgnoreRules(ignoreFile: text)
        fingerprint = ContentHasher.hash(Array((text ?? "").utf8)).rawValue
    }
}
