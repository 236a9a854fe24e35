public import Foundation

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
    private let process: Process
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
    public static func start(_ name: String, _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil) throws -> CLIProcess {
        let process = Process()
        process.executableURL = try executable(name)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("vaultsync-cli-\(UUID().uuidString)")
        let output = scratch.appendingPathExtension("out"), errors = scratch.appendingPathExtension("err")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        if let stdin {
            let input = scratch.appendingPathExtension("in")
            _ = FileManager.default.createFile(atPath: input.path, contents: Data(stdin.utf8))
            process.standardInput = try FileHandle(forReadingFrom: input)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        return CLIProcess(process: process, output: output, errors: errors)
    }

    /// Runs `name` to the end.
    public static func run(_ name: String, _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil, timeout: Duration = .seconds(120)) async throws -> CLIResult {
        try await start(name, arguments, environment: environment, stdin: stdin).finish(timeout: timeout)
    }

    /// The child's process id.
    public var pid: Int32 { process.processIdentifier }

    /// Whether the child still runs.
    public var isRunning: Bool { process.isRunning }

    /// Sends `signal` to the child.
    public func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
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
            while process.isRunning {
                guard clock.now < deadline else {
                    kill(process.processIdentifier, SIGKILL)
                    process.waitUntilExit()
                    throw CLIProcessError.timedOut(process.arguments ?? [], partial: read())
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        } catch let error as CancellationError {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw error
        }
        process.waitUntilExit()
        let result = read()
        try? FileManager.default.removeItem(at: output)
        try? FileManager.default.removeItem(at: errors)
        return result
    }

    private func read() -> CLIResult {
        CLIResult(
            exitCode: process.isRunning ? -1 : process.terminationStatus,
            stdout: (try? String(contentsOf: output, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errors, encoding: .utf8)) ?? "")
    }
}

/// Why a command-line run could not be made or judged.
public enum CLIProcessError: Error, CustomStringConvertible {
    case notBuilt(String)
    case timedOut([String], partial: CLIResult)
    case notJSON(String)

    public var description: String {
        switch self {
        case .notBuilt(let name): "the '\(name)' executable is not built beside the tests: run 'swift build --build-tests' first"
        case .timedOut(let arguments, let partial): "'\(arguments.joined(separator: " "))' did not finish in time and was killed\n\(partial)"
        case .notJSON(let text): "standard output is not a JSON object: \(text.prefix(500))"
        }
    }
}
