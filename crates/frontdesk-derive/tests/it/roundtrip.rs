//! Round trips: answers generated from the derived schema validate, and read back into the
//! struct without failing.
