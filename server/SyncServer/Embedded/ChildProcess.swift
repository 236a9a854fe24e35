import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Child processes started with posix_spawn and reaped with waitpid. Foundation's `Process` can miss
/// a child's exit: it learns of it when a socket it shares with the child closes, and a child that
/// another thread's spawn happened to inherit that socket (or whose own child daemonises, as
/// `pg_ctl start` does) keeps it open, leaving the caller waiting long after the exit.
/// A child started here gets standard input, output and error, and no other descriptor of ours.
public enum ChildProcess {
    /// A program that exited non-zero (`status` -1 when a signal ended it), with what it printed.
    public struct Failure: Error {
        public let status: Int32
        public let output: String
    }

    #if os(Linux)
    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), which Swift's Glibc module
    /// does not declare; nil on an older glibc.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
    #endif

    /// Starts `path` with `arguments` and returns its process id. Standard input is read from
    /// `stdin`; standard output is written to `stdout` and standard error to `stderr` (to `stdout`
    /// when nil), each file created or truncated. `environment` nil passes this process's on.
    public static func spawn(_ path: String, _ arguments: [String], environment: [String: String]? = nil,
                             stdin: String = "/dev/null", stdout: String, stderr: String? = nil) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if let stderr {
            posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        #if os(Linux)
        // Nothing else of this process's passes on: `pg_ctl start` leaves a postmaster behind that
        // would hold our sockets and pipes open (a supervisor would wait for our exit for ever).
        _ = Self.closeFrom?(&actions, 3)
        #endif

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { envp?.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = envp.map { posix_spawn(&pid, path, &actions, nil, argv, $0) } ?? posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL) }
        return pid
    }

    /// How a child ended: its exit code, or the signal that ended it.
    public enum Ending: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)

        init(status: Int32) {
            // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift cannot see.
            self = (status & 0x7f) == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
        }
    }

    /// Reaps `pid` if it has ended (nil while it runs); `block` waits for the end.
    public static func reap(_ pid: Int32, block: Bool) throws -> Ending? {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, block ? 0 : WNOHANG)
            if result == pid { return Ending(status: status) }
            if result == 0 { return nil }
            guard errno == EINTR else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ECHILD) }
        }
    }

    /// Runs `path` with `arguments` to completion; stdout and stderr go to a temporary file whose text is returned.
    /// - Throws: ``Failure`` when the program exits non-zero, or a `POSIXError` if it cannot start.
    static func run(_ path: String, _ arguments: [String]) throws -> String {
        let capture = FileManager.default.temporaryDirectory.appendingPathComponent("vaultsync-child-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: capture) }
        let pid = try spawn(path, arguments, stdout: capture.path)
        let ending = try reap(pid, block: true)
        let output = (try? String(contentsOf: capture, encoding: .utf8)) ?? ""
        guard ending == .exited(0) else {
            if case .exited(let code) = ending { throw Failure(status: code, output: output) }
            throw Failure(status: -1, output: output)
        }
        return output
    }
}
