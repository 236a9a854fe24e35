import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Who may reach the embedded cluster: the account the server runs as, and no other local one.
///
/// - The Unix socket lives in a folder only the cluster's owner can enter: the cluster folder
///   itself, or (when that path is too long for a socket) a folder made with `mkdtemp` (0700)
///   and recorded beside the cluster, so that a restart and the admin commands find it again.
///   `unix_socket_permissions` is 0700 on top.
/// - Sign-in is by peer authentication: the kernel says which account connects, and
///   `pg_ident.conf` maps only the server's account (and `postgres`) to the `postgres` role. No
///   password exists to leak; a cluster made by an earlier version with `trust` is switched over.
struct ClusterAccess: Sendable {
    let clusterDirectory: URL
    /// The account the postmaster runs as (`postgres` when the server runs as root).
    let ownerUID: uid_t
    let ownerGID: gid_t
    /// The account the server runs as, which may sign in as `postgres`.
    let serverUser: String

    /// Unix socket paths are limited to about 107 bytes.
    static let socketPathLimit = 100

    init(clusterDirectory: URL) {
        self.clusterDirectory = clusterDirectory
        let account = geteuid() == 0 ? getpwnam("postgres") : getpwuid(geteuid())
        ownerUID = account?.pointee.pw_uid ?? geteuid()
        ownerGID = account?.pointee.pw_gid ?? getegid()
        serverUser = getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "root"
    }

    // MARK: sign-in

    /// `pg_hba.conf`: the Unix socket only, peer authentication through the `vaultsync` map.
    static let hba = """
        # Written by vaultsync-server: the embedded cluster takes connections on its Unix socket only,
        # from the accounts pg_ident.conf maps (the server's own). Changes here are overwritten.
        local all all peer map=vaultsync

        """

    /// `pg_ident.conf`: the server's account and `postgres` may sign in as the `postgres` role.
    var ident: String {
        let users = Array(Set(["postgres", serverUser])).sorted()
        return "# Written by vaultsync-server. Changes here are overwritten.\n" + users.map { "vaultsync \($0) postgres\n" }.joined()
    }

    /// Writes `pg_hba.conf` and `pg_ident.conf` where they differ (owned by the cluster's owner,
    /// mode 0600); returns whether anything changed (a running postmaster must then reload).
    func writeConfiguration() throws -> Bool {
        var changed = false
        for (name, text) in [("pg_hba.conf", Self.hba), ("pg_ident.conf", ident)] {
            let file = clusterDirectory.appendingPathComponent(name)
            if (try? String(contentsOf: file, encoding: .utf8)) == text { continue }
            try Data(text.utf8).write(to: file, options: .atomic)
            try own(file.path, mode: 0o600)
            changed = true
        }
        return changed
    }

    // MARK: the socket's folder

    /// Where the socket lives: the cluster folder, or for a long path the folder recorded beside
    /// it (``prepareSocketDirectory()``), or the one a running postmaster reports.
    var socketDirectory: URL {
        if !needsFolderOfItsOwn { return clusterDirectory }
        if let recorded = try? String(contentsOf: recordFile, encoding: .utf8) {
            return URL(fileURLWithPath: recorded.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        // `postmaster.pid` names the socket's folder on its fifth line.
        if let pid = try? String(contentsOf: clusterDirectory.appendingPathComponent("postmaster.pid"), encoding: .utf8) {
            let lines = pid.split(separator: "\n", omittingEmptySubsequences: false)
            if lines.count > 4, lines[4].hasPrefix("/") { return URL(fileURLWithPath: String(lines[4])) }
        }
        return URL(fileURLWithPath: "/nonexistent/vaultsync-pg-not-started")
    }

    var needsFolderOfItsOwn: Bool {
        clusterDirectory.appendingPathComponent(".s.PGSQL.5432").path.utf8.count >= Self.socketPathLimit
    }

    /// The file beside the cluster folder that names its socket's folder.
    var recordFile: URL {
        clusterDirectory.deletingLastPathComponent().appendingPathComponent(clusterDirectory.lastPathComponent + "-socket-folder")
    }

    /// The socket's folder, made ready before the postmaster starts: the recorded one while it is
    /// still a folder only the cluster's owner can enter, else a new one from `mkdtemp`.
    func prepareSocketDirectory() throws -> URL {
        guard needsFolderOfItsOwn else { return clusterDirectory }
        let recorded = socketDirectory
        if isPrivateFolder(recorded.path) { return recorded }
        var template = Array("/tmp/vaultsync-pg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw EmbeddedPostgresError.access(String(cString: strerror(errno))) }
        let folder = String(cString: made)
        try own(folder, mode: 0o700)
        try Data((folder + "\n").utf8).write(to: recordFile, options: .atomic)
        _ = chmod(recordFile.path, 0o600)
        return URL(fileURLWithPath: folder)
    }

    /// Once the postmaster has stopped: removes a socket folder of its own (empty by then) and its
    /// record; the next start makes a new one.
    func removeSocketDirectory() {
        guard needsFolderOfItsOwn else { return }
        let folder = socketDirectory
        if isPrivateFolder(folder.path), rmdir(folder.path) == 0 || errno == ENOENT { try? FileManager.default.removeItem(at: recordFile) }
    }

    /// A real folder (not a link), the cluster owner's, that nobody else may enter.
    func isPrivateFolder(_ path: String) -> Bool {
        // `attributesOfItem` does not follow a final symbolic link: a link is reported as one.
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeDirectory,
            (attributes[.ownerAccountID] as? NSNumber)?.uint32Value == ownerUID,
            let mode = attributes[.posixPermissions] as? Int
        else { return false }
        return mode & 0o077 == 0
    }

    private func own(_ path: String, mode: mode_t) throws {
        guard chown(path, ownerUID, ownerGID) == 0 || geteuid() != 0, chmod(path, mode) == 0 else {
            throw EmbeddedPostgresError.access("cannot set the owner and mode of \(path): \(String(cString: strerror(errno)))")
        }
    }
}
