import Foundation
import Synchronization

/// Each token's calls per minute (`/mcp`): a bucket of `burst` calls refilled at `perMinute`, so an
/// agent that loops cannot crowd out the people and devices of its account. The decision is pure
/// (``take(_:at:)``); the buckets are kept in memory (a restart refills them).
final class AgentRateLimit: Sendable {
    struct Bucket: Sendable, Equatable {
        var tokens: Double
        var at: Date
    }

    let perMinute: Double
    let burst: Double
    private let buckets = Mutex<[UUID: Bucket]>([:])

    init(perMinute: Int = 120, burst: Int? = nil) {
        self.perMinute = Double(max(1, perMinute))
        self.burst = Double(max(1, burst ?? perMinute / 2))
    }

    /// Takes one call for `device` at `now`; nil when it may go on, else the whole seconds until it may.
    func take(_ device: UUID, at now: Date) -> Int? {
        buckets.withLock { buckets in
            let (bucket, wait) = Self.take(buckets[device] ?? Bucket(tokens: burst, at: now), at: now, perMinute: perMinute, burst: burst)
            buckets[device] = bucket
            // Forget full buckets now and then, so the table holds only the tokens in use.
            if buckets.count > 10_000 { buckets = buckets.filter { $0.value.tokens < burst - 1 } }
            return wait
        }
    }

    /// The bucket after one call at `now`, and the seconds to wait when it held none. Pure.
    static func take(_ bucket: Bucket, at now: Date, perMinute: Double, burst: Double) -> (Bucket, Int?) {
        let elapsed = max(0, now.timeIntervalSince(bucket.at))
        let tokens = min(burst, bucket.tokens + elapsed * perMinute / 60)
        guard tokens >= 1 else {
            return (Bucket(tokens: tokens, at: now), Int(((1 - tokens) * 60 / perMinute).rounded(.up)))
        }
        return (Bucket(tokens: tokens - 1, at: now), nil)
    }
}
