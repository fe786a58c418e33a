import Hummingbird
import HummingbirdAuth
import IdentityAdmin

/// The request context of the app's routes: Hummingbird's basic context,
/// the connection's peer address (for the per-address attempt limits) and,
/// on the signed-in routes, the session cookie's verified claims.
public struct AppRequestContext: AuthRequestContext {
    /// Hummingbird's storage for every context.
    public var coreContext: CoreRequestContextStorage
    /// The connection's peer (the proxy's address behind one); nil when
    /// there is no network connection (HummingbirdTesting's router tests).
    public let remoteAddress: String?
    /// The verified session cookie, set by `FirebaseAuthenticator` on the
    /// routes it protects; nil elsewhere.
    public var identity: DecodedIDToken?

    /// Reads the peer address from the request's channel.
    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress
        identity = nil
    }
}
