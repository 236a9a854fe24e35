public import Foundation

/// Runs a built executable on a pseudo-terminal, as a person at a keyboard meets it: each reply is
/// typed once its prompt has appeared (a password prompt reads the terminal, not standard input).
/// The driver is Python's `pty` module, in a child process that ends with the run.
public enum TerminalRun {
    public struct Result: Sendable, Decodable, CustomStringConvertible {
        public let exitCode: Int32
        /// Everything the terminal showed (prompts and output; typed secrets are not echoed).
        public let screen: String

        enum CodingKeys: String, CodingKey {
            case exitCode = "exit_code"
            case screen
        }

        public var description: String { "exit \(exitCode)\n--- screen\n\(screen)" }
    }

    private static let driver = #"""
        import json, os, pty, select, sys, time
        exe, args, replies = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(exe, [exe] + args)
        screen, seen = b"", 0
        def read(until=None, seconds=60):
            global screen
            end = time.time() + seconds
            while time.time() < end:
                if until is not None and screen.find(until.encode(), seen) >= 0:
                    return True
                ready, _, _ = select.select([fd], [], [], 0.1)
                if ready:
                    try:
                        chunk = os.read(fd, 4096)
                    except OSError:
                        return False
                    if not chunk:
                        return False
                    screen += chunk
            return False
        for prompt, reply in replies:
            if not read(prompt):
                break
            seen = screen.find(prompt.encode(), seen) + len(prompt)
            os.write(fd, (reply + "\n").encode())
        read()
        _, status = os.waitpid(pid, 0)
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)
        print(json.dumps({"exit_code": code, "screen": screen.decode("utf-8", "replace")}))
        """#

    /// Runs `name` with `arguments`, typing each reply after its prompt.
    public static func run(
        _ name: String, _ arguments: [String], replies: [(prompt: String, reply: String)], environment: [String: String] = [:]
    ) async throws -> Result {
        let executable = try CLIProcess.executable(name).path
        let encoded = { (value: any Encodable) in String(decoding: try JSONEncoder().encode(AnyEncodable(value)), as: UTF8.self) }
        let result = try await CLIProcess.run(
            "/usr/bin/env", ["python3", "-c", driver, executable, try encoded(arguments), try encoded(replies.map { [$0.prompt, $0.reply] })],
            environment: environment, timeout: .seconds(120))
        return try JSONDecoder().decode(Result.self, from: Data(result.stdout.utf8))
    }
}

private struct AnyEncodable: Encodable {
    let value: any Encodable
    init(_ value: any Encodable) { self.value = value }
    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}
