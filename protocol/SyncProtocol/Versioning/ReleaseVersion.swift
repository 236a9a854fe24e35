/// The VaultSync release this build belongs to: what `vaultsync --version`,
/// `vaultsync-server --version` and the server's `GET /health` (`server_version`) report.
public enum ReleaseVersion {
    /// The release, as `MAJOR.MINOR.PATCH`.
    public static let current = "0.1.0"
}
