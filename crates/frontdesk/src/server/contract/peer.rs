//! Who an anonymous client is, from the address it connects from: the key
//! of every per-client share (connections, requests in flight, URL flows,
//! redeemed states, tasks, subscriptions) when there is no principal.
//!
//! One IPv6 host is usually given a whole /64, and can pick any address in
//! it for each connection; keyed by its /128, it would be as many clients as
//! it likes, each with a full share. So an IPv6 address counts as its /64,
//! and an IPv4-mapped IPv6 address (`::ffff:192.0.2.7`, what a dual-stack
//! listener sees of an IPv4 peer) as the IPv4 address it is.

use std::fmt;
use std::net::{IpAddr, Ipv6Addr};

/// The network an anonymous client is told apart by: an IPv4 address, or
/// the /64 an IPv6 address is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ClientNet(IpAddr);

impl ClientNet {
    /// The network of a peer at `ip`.
    pub(crate) fn of(ip: IpAddr) -> Self {
        match ip.to_canonical() {
            IpAddr::V6(v6) => {
                let prefix = u128::from(v6) & !(u128::from(u64::MAX));
                Self(IpAddr::V6(Ipv6Addr::from(prefix)))
            }
            v4 => Self(v4),
        }
    }
}

/// `192.0.2.7`, or `2001:db8:1:2::/64`.
impl fmt::Display for ClientNet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            IpAddr::V4(v4) => write!(f, "{v4}"),
            IpAddr::V6(v6) => write!(f, "{v6}/64"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(ip: &str) -> String {
        ClientNet::of(ip.parse().unwrap()).to_string()
    }

    #[test]
    fn ipv4_is_its_own_address() {
        assert_eq!(key("192.0.2.7"), "192.0.2.7");
        assert_ne!(key("192.0.2.7"), key("192.0.2.8"));
        assert_eq!(key("127.0.0.2"), "127.0.0.2");
    }

    #[test]
    fn ipv6_is_its_64() {
        assert_eq!(key("2001:db8:1:2::1"), "2001:db8:1:2::/64");
        assert_eq!(key("2001:db8:1:2:ffff:ffff:ffff:ffff"), "2001:db8:1:2::/64");
        assert_eq!(key("2001:db8:1:2::1"), key("2001:db8:1:2:abcd::9"));
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        assert_eq!(key("::1"), "::/64");
        assert_eq!(key("fe80::1"), "fe80::/64");
    }

    #[test]
    fn ipv4_mapped_ipv6_is_the_ipv4_address() {
        assert_eq!(key("::ffff:192.0.2.7"), "192.0.2.7");
        assert_eq!(
            ClientNet::of("::ffff:192.0.2.7".parse().unwrap()),
            ClientNet::of("192.0.2.7".parse().unwrap())
        );
        assert_ne!(key("::ffff:192.0.2.7"), key("::ffff:192.0.2.8"));
    }
}
