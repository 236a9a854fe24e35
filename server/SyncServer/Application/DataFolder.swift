import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The server's data folder holds the signing secret, the blobs, export scratch files and the
/// embedded cluster: it is made private to the server's account. When the server runs as root
/// with the embedded cluster, the cluster runs as `postgres`, which must pass through the folder
/// to reach its own: then the folder is 0710 with group `postgres` (that account may enter, not
/// list), else 0700. An existing folder is only tightened, never opened up.
enum DataFolder {
    /// Creates `url` or tightens its mode as above.
    /// - Parameter embeddedCluster: whether an embedded cluster will live inside.
    static func prepare(_ url: URL, embeddedCluster: Bool) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = url.resolvingSymlinksInPath().path
        let postgres = geteuid() == 0 && embeddedCluster ? getpwnam("postgres")?.pointee.pw_gid : nil
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        let current = mode_t((attributes[.posixPermissions] as? Int) ?? 0o700)
        var mode = current & 0o700
        if let postgres {
            guard chown(path, uid_t.max, postgres) == 0 else {
                throw ConfigurationError.invalid("cannot give the data folder \(path) to the postgres group: \(String(cString: strerror(errno)))")
            }
            mode |= 0o010
        }
        guard mode != current & 0o777 else { return }
        guard chmod(path, mode) == 0 else {
            throw ConfigurationError.invalid("cannot make the data folder \(path) private (mode \(String(mode, radix: 8))): \(String(cString: strerror(errno)))")
        }
    }
}
