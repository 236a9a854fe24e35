import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a program to completion with posix_spawn + waitpid. Foundation's `Process` can miss the
/// exit of a child whose own child daemonises (`pg_ctl start`), leaving the caller waiting forever.
/// The child gets standard input, output and error, and no other descriptor of ours.
enum ChildProcess {
    struct Failure: Error {
        let status: Int32
        let output: String
    }

    #if os(Linux)
    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), which Swift's Glibc module
    /// does not declare; nil on an older glibc.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
    #endif

    /// Runs `path` with `arguments`; stdout and stderr go to a temporary file whose text is returned.
    /// - Throws: ``Failure`` when the program exits non-zero, or a `POSIXError` if it cannot start.
    static func run(_ path: String, _ arguments: [String]) throws -> String {
        let capture = FileManager.default.temporaryDirectory.appendingPathComponent("vaultsync-child-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: capture) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, capture.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        #if os(Linux)
        // Nothing else of this process's passes on: `pg_ctl start` leaves a postmaster behind that
        // would hold our sockets and pipes open (a supervisor would wait for our exit for ever).
        Self.closeFrom?(&actions, 3)
        #endif

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL) }

        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ECHILD) }
        }
        let output = (try? String(contentsOf: capture, encoding: .utf8)) ?? ""
        // WIFEXITED / WEXITSTATUS are macros Swift cannot see.
        let exited = (status & 0x7f) == 0
        let code = (status >> 8) & 0xff
        guard exited, code == 0 else { throw Failure(status: exited ? code : -1, output: output) }
        return output
    }
}
