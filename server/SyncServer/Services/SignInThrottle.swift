public import Foundation
import Postgres

/// When failed sign-ins make a client wait (see ``SignInThrottle``).
public struct SignInThrottlePolicy: Sendable, Equatable {
    /// Failures of one account from one address before waits begin.
    public var freeAccountFailures = 3
    /// Failures from one address (any accounts) before waits begin.
    public var freeAddressFailures = 20
    /// Failures of one account from all addresses together before waits begin (for devices
    /// without a sign-in ticket).
    public var freeAccountFailuresEverywhere = 10
    /// Failed app passwords of one account from all addresses together before waits begin: a
    /// ceiling on load, high enough that nobody can lock an account's WebDAV clients out.
    public var freeAppPasswordFailuresEverywhere = 1000
    /// The longest wait.
    public var longestWait: Duration = .seconds(15 * 60)
    /// Failures older than this are forgotten.
    public var memory: Duration = .seconds(15 * 60)
    /// Sign-ups from one address within the memory before waits begin: each one hashes a password,
    /// which many at once would make every sign-in wait for.
    public var freeAddressSignups = 5

    public init() {}
}

/// Slows password guessing. Each failed password check counts against the keys
/// ``SignInAdmission`` names: the account from that address, the address, and the account from
/// every address, or, for a device that shows a sign-in ticket, the ticket alone. Past a few free
/// failures, every further one makes the key wait twice as long (1 s, 2 s, 4 s … up to 15
/// minutes); a check on a waiting key is answered `429 too_many_requests` with `Retry-After`,
/// before any password is hashed. Failures a quarter of an hour old are forgotten. The counts
/// live in Postgres, so every instance behind a load balancer sees the same ones.
struct SignInThrottle: Sendable {
    let db: PostgresPool
    let policy: SignInThrottlePolicy
    let now: @Sendable () -> Date

    /// The plan for a check of `email`'s password from `address` (see ``SignInAdmission``).
    func plan(email: String, address: String, ticketID: String?) -> SignInAdmission.Plan {
        SignInAdmission.plan(account: SignInAdmission.accountName(email), address: address, ticketID: ticketID, policy: policy)
    }

    /// Admits a password check, counting it as a failure before it is made: refused while one of
    /// the plan's counts must wait, otherwise counted, in one transaction under the counts' row
    /// locks, so that checks sent together wait for each other's counts and a burst passes no more
    /// checks than the same guesses one after the other. A check that then succeeds takes its
    /// count back (``succeededAfterAdmit(_:)``); one that fails adds nothing more.
    /// - Throws: ``ServiceError/tooManyRequests(_:retryAfterSeconds:)``.
    func admit(_ plan: SignInAdmission.Plan) async throws {
        let now = now()
        let counts = plan.countFailure.sorted { $0.key < $1.key }  // one lock order for every request
        let until = try await db.transaction { tx in
            // Rows first, so that a burst at counts nobody made yet queues on their locks too.
            for count in counts {
                try tx.query(
                    "INSERT INTO sign_in_failures (key, failures, last_failure_at) VALUES ($1, 0, $2) ON CONFLICT (key) DO NOTHING", [count.key, now])
            }
            let blocked = try tx.query(
                "SELECT blocked_until FROM sign_in_failures WHERE key = ANY($1) ORDER BY key FOR UPDATE", [plan.waitFor]
            ).compactMap { try $0.optionalDate(0) }.filter { $0 > now }.max()
            if blocked != nil { return blocked }
            for count in counts { try self.count(tx, key: count.key, free: count.free, now: now) }
            return nil
        }
        guard let until else { return }
        let seconds = max(1, Int(until.timeIntervalSince(now).rounded(.up)))
        throw ServiceError.tooManyRequests("too many failed sign-ins: try again in \(seconds) s", retryAfterSeconds: seconds)
    }

    /// Takes back the count ``admit(_:)`` made for a check that succeeded: the counts it clears go,
    /// and the others (the address's, the account's from everywhere) lose that one again, waiting
    /// no more unless earlier failures keep them past their free ones.
    func succeededAfterAdmit(_ plan: SignInAdmission.Plan) async throws {
        try await db.transaction { tx in
            try tx.query("DELETE FROM sign_in_failures WHERE key = ANY($1)", [plan.clearOnSuccess])
            for count in plan.countFailure.sorted(by: { $0.key < $1.key }) where !plan.clearOnSuccess.contains(count.key) {
                try tx.query(
                    """
                    UPDATE sign_in_failures SET failures = greatest(failures - 1, 0),
                        blocked_until = CASE WHEN failures - 1 > $2 THEN blocked_until ELSE NULL END
                    WHERE key = $1
                    """, [count.key, count.free])
            }
        }
    }

    /// The plan for a check of one of `email`'s app passwords from `address`.
    func appPasswordPlan(email: String, address: String) -> SignInAdmission.Plan {
        SignInAdmission.appPasswordPlan(account: SignInAdmission.accountName(email), address: address, policy: policy)
    }

    func tokenPlan(address: String) -> SignInAdmission.Plan {
        SignInAdmission.tokenPlan(address: address, policy: policy)
    }

    /// Refuses a check while one of the plan's counts must still wait (app passwords: see
    /// ``AuthService/appPasswordHolder(email:password:address:then:)``).
    /// - Throws: ``ServiceError/tooManyRequests(_:retryAfterSeconds:)``.
    func check(_ plan: SignInAdmission.Plan) async throws {
        try await db.withConnection { try check(plan, on: $0) }
    }

    /// ``check(_:)`` on a connection the caller holds (so a sign-in reads the throttle and the
    /// credential on one).
    func check(_ plan: SignInAdmission.Plan, on db: PostgresConnection) throws {
        let now = now()
        let until = try db.query("SELECT max(blocked_until) FROM sign_in_failures WHERE key = ANY($1) AND blocked_until > $2", [plan.waitFor, now]).first?.optionalDate(0)
        guard let until else { return }
        let seconds = max(1, Int(until.timeIntervalSince(now).rounded(.up)))
        throw ServiceError.tooManyRequests("too many failed sign-ins: try again in \(seconds) s", retryAfterSeconds: seconds)
    }

    /// Counts a failed check.
    func failed(_ plan: SignInAdmission.Plan) async throws {
        let now = now()
        try await db.transaction { tx in
            for count in plan.countFailure { try self.count(tx, key: count.key, free: count.free, now: now) }
        }
    }

    /// Admits a sign-up from `address`, counting it: past the free ones within the memory, each
    /// waits as failed sign-ins do. Counted and checked in one statement under the key's row lock,
    /// so many sign-ups sent at once cannot all pass before the first is counted.
    /// - Throws: ``ServiceError/tooManyRequests(_:retryAfterSeconds:)``.
    func admitSignup(address: String) async throws {
        let now = now()
        let key = "signup:\(address)"
        let until = try await db.transaction { tx in
            let blocked = try tx.query("SELECT blocked_until FROM sign_in_failures WHERE key = $1 AND blocked_until > $2 FOR UPDATE", [key, now]).first?.optionalDate(0)
            if blocked != nil { return blocked }
            // Counted first, so the sign-up that goes past the free ones waits too.
            try count(tx, key: key, free: policy.freeAddressSignups, now: now)
            return try tx.query("SELECT blocked_until FROM sign_in_failures WHERE key = $1", [key]).first?.optionalDate(0)
        }
        guard let until else { return }
        let seconds = max(1, Int(until.timeIntervalSince(now).rounded(.up)))
        throw ServiceError.tooManyRequests("too many sign-ups from this address: try again in \(seconds) s", retryAfterSeconds: seconds)
    }

    /// Counts one more event for `key`; past `free` of them within the memory the key waits, twice
    /// as long with each further one, up to the longest wait.
    private func count(_ tx: PostgresConnection, key: String, free: Int, now: Date) throws {
        try tx.query(
            """
            INSERT INTO sign_in_failures AS f (key, failures, last_failure_at) VALUES ($1, 1, $2)
            ON CONFLICT (key) DO UPDATE SET
                failures = CASE WHEN f.last_failure_at < $2::timestamptz - make_interval(secs => $3) THEN 1 ELSE f.failures + 1 END,
                last_failure_at = $2
            """, [key, now, Int(policy.memory.seconds)])
        try tx.query(
            """
            UPDATE sign_in_failures SET blocked_until = CASE WHEN failures > $2
                THEN $3::timestamptz + make_interval(secs => least($4, power(2, least(failures - $2 - 1, 30))))
                ELSE NULL END
            WHERE key = $1
            """, [key, free, now, Int(policy.longestWait.seconds)])
    }

    /// Forgets failures older than the memory (run by the purge job).
    static func forget(_ db: PostgresConnection, before cutoff: Date) throws {
        try db.query("DELETE FROM sign_in_failures WHERE last_failure_at < $1 AND (blocked_until IS NULL OR blocked_until < $1)", [cutoff])
    }
}
