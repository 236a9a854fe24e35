public import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where one secret (a password, a passphrase, a recovery key) comes from, always in the same
/// order: a line of standard input when the command's `--…-stdin` flag asks for it, else the
/// environment, else a prompt on a terminal (typed twice for a new secret), else a clear error.
/// Both executables read their secrets so.
package struct SecretSource {
    /// What the secret is, for messages ("password", "passphrase").
    package var what: String
    /// Read from the next line of standard input.
    package var stdin = false
    /// The environment variable that may hold it.
    package var environment: String?
    /// What a terminal prompt says.
    package var prompt: String
    /// A new secret: typed twice on a terminal, and the two must agree.
    package var typedTwice = false
    /// The error when none is given.
    package var missing: String

    package init(what: String, stdin: Bool = false, environment: String? = nil, prompt: String, typedTwice: Bool = false, missing: String) {
        self.what = what
        self.stdin = stdin
        self.environment = environment
        self.prompt = prompt
        self.typedTwice = typedTwice
        self.missing = missing
    }

    package func read() throws -> String {
        if stdin { return try Self.line(what) }
        if let value = environment.flatMap(Self.environment) { return value }
        guard let first = Self.typed(prompt) else { throw ValidationError(missing) }
        guard typedTwice else { return first }
        guard let second = Self.typed("The same \(what) again: ") else { throw ValidationError(missing) }
        guard first == second else { throw ValidationError("the two \(what)s differ; nothing was changed") }
        return first
    }

    /// The next line of standard input, which must not be empty.
    package static func line(_ what: String) throws -> String {
        guard let line = readLine(strippingNewline: true), !line.isEmpty else { throw ValidationError("no \(what) on standard input") }
        return line
    }

    /// A variable's value, unless it is unset or empty.
    package static func environment(_ key: String) -> String? {
        ProcessInfo.processInfo.environment[key].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// What the person typed at `prompt` without echo; nil when standard input is no terminal.
    private static func typed(_ prompt: String) -> String? {
        guard isatty(STDIN_FILENO) == 1, let typed = getpass(prompt) else { return nil }
        return String(cString: typed)
    }
}
