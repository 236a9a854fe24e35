public import Foundation
import Synchronization
import SyncServer

#if canImport(Glibc)
import Glibc
#endif

/// What a finished command-line run printed and how it exited.
public struct CLIResult: Sendable, CustomStringConvertible {
    public let exitCode: Int32
    public let stdout: String
    public let stderr: String

    public var description: String { "exit \(exitCode)\n--- stdout\n\(stdout)\n--- stderr\n\(stderr)" }

    /// Standard output parsed as a JSON object.
    public func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any] else { throw CLIProcessError.notJSON(stdout) }
        return object
    }
}

/// Runs the built `vaultsync` and `vaultsync-server` executables as a user does: a real child
/// process with arguments, environment and standard input, its output captured. `swift build
/// --build-tests` puts them beside the test bundle. A run that outlives its time limit is killed,
/// and so is every run whose awaiting test is cancelled: no process outlives its test.
public struct CLIProcess: Sendable {
    private let child: Child
    private let arguments: [String]
    private let output: URL
    private let errors: URL

    /// The executable's path: a built product beside the tests, or an absolute path.
    public static func executable(_ name: String) throws -> URL {
        if name.hasPrefix("/") { return URL(fileURLWithPath: name) }
        let bundle = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        var folder = bundle.deletingLastPathComponent()
        // The test binary may sit inside `VaultSyncPackageTests.xctest/`.
        for _ in 0..<3 {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        throw CLIProcessError.notBuilt(name)
    }

    /// Starts `name` with `arguments`; the environment is this process's plus `environment`.
    /// Spawned with ``ChildProcess`` rather than Foundation's `Process`, whose exit detection can
    /// lag by as long as a concurrently started child lives (see ``ChildProcess``).
    public static func start(_ name: String, _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil) throws -> CLIProcess {
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("vaultsync-cli-\(UUID().uuidString)")
        let output = scratch.appendingPathExtension("out"), errors = scratch.appendingPathExtension("err")
        var input = "/dev/null"
        if let stdin {
            input = scratch.appendingPathExtension("in").path
            _ = FileManager.default.createFile(atPath: input, contents: Data(stdin.utf8))
        }
        defer { if stdin != nil { try? FileManager.default.removeItem(atPath: input) } }
        let pid = try ChildProcess.spawn(try executable(name).path, arguments, environment: env, stdin: input, stdout: output.path, stderr: errors.path)
        return CLIProcess(child: Child(pid: pid, scratch: [output, errors]), arguments: [name] + arguments, output: output, errors: errors)
    }

    /// Runs `name` to the end.
    public static func run(_ name: String, _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil, timeout: Duration = .seconds(120)) async throws -> CLIResult {
        try await start(name, arguments, environment: environment, stdin: stdin).finish(timeout: timeout)
    }

    /// The child's process id.
    public var pid: Int32 { child.pid }

    /// Whether the child still runs.
    public var isRunning: Bool { child.ending(wait: false) == nil }

    /// Sends `signal` to the child (nothing once it has ended and been reaped).
    public func send(_ signal: Int32) {
        child.signal(signal)
    }

    /// What the process has written to standard output so far (it may still be running).
    public var stdoutSoFar: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

    /// What the process has written to standard error so far (it may still be running).
    public var stderrSoFar: String { (try? String(contentsOf: errors, encoding: .utf8)) ?? "" }

    /// Waits for the process to exit (killing it after `timeout`, or when the waiting task is cancelled).
    public func finish(timeout: Duration = .seconds(120)) async throws -> CLIResult {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        do {
            while isRunning {
                guard clock.now < deadline else {
                    child.signal(SIGKILL)
                    _ = child.ending(wait: true)
                    throw CLIProcessError.timedOut(arguments, partial: read())
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        } catch let error as CancellationError {
            child.signal(SIGKILL)
            _ = child.ending(wait: true)
            throw error
        }
        return read()
    }

    private func read() -> CLIResult {
        CLIResult(
            exitCode: child.ending(wait: false).map(\.code) ?? -1,
            stdout: (try? String(contentsOf: output, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errors, encoding: .utf8)) ?? "")
    }
}

/// A spawned child, reaped once; its ending is kept for every later question.
private final class Child: Sendable {
    let pid: pid_t
    /// The files its output went to: removed with it, however the run ended (processes stopped
    /// by a signal, never waited for, left them in /tmp).
    let scratch: [URL]
    private let ended = Mutex<ChildProcess.Ending?>(nil)

    init(pid: pid_t, scratch: [URL]) {
        self.pid = pid
        self.scratch = scratch
    }

    /// How the child ended, nil while it runs; `wait` blocks until it ends.
    func ending(wait: Bool) -> ChildProcess.Ending? {
        ended.withLock { ending in
            if ending == nil { ending = try? ChildProcess.reap(pid, block: wait) }
            return ending
        }
    }

    /// Signals the child unless it was reaped (its pid may belong to another process by then).
    func signal(_ signal: Int32) {
        ended.withLock { if $0 == nil { kill(pid, signal) } }
    }

    deinit {
        // A child never waited for is reaped if it has ended, so no zombie outlives its test.
        if ended.withLock({ $0 }) == nil { _ = try? ChildProcess.reap(pid, block: false) }
        for file in scratch { try? FileManager.default.removeItem(at: file) }
    }
}

extension ChildProcess.Ending {
    /// The exit code, or the signal number for a child a signal ended (as a shell's `$?` minus 128).
    var code: Int32 {
        switch self {
        case .exited(let code): code
        case .signalled(let signal): signal
        }
    }
}

/// Why a command-line run could not be made or judged.
public enum CLIProcessError: Error, CustomStringConvertible {
    case notBuilt(String)
    /// A helper the test starts (a proxy, a load generator) did not come up; the text says how.
    case helperFailed(String)
    case timedOut([String], partial: CLIResult)
    case notJSON(String)

    public var description: String {
        switch self {
        case .notBuilt(let name): "the '\(name)' executable is not built beside the tests: run 'swift build --build-tests' first"
        case .helperFailed(let why): why
        case .timedOut(let arguments, let partial): "'\(arguments.joined(separator: " "))' did not finish in time and was killed\n\(partial)"
        case .notJSON(let text): "standard output is not a JSON object: \(text.prefix(500))"
        }
    }
}
