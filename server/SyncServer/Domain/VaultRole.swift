/// What a person may do in a vault (issue 34): its owner (whose account keeps it), and members an
/// owner or admin added as `admin` (also manages members), `writer` (everything a sync does) or
/// `reader` (syncs, never writes). ``WriteAdmission`` takes it as one more input of every write.
enum VaultRole: String, Sendable, Equatable, CaseIterable {
    case owner, admin, writer, reader

    /// Whether the role may change the vault's files.
    var writes: Bool { self != .reader }
}
