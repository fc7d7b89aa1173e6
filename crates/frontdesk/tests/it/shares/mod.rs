//! Every table a client can fill has a share per client (issue 24), and one
//! anonymous client is one share however many addresses it has ([`peers`]).

mod peers;
