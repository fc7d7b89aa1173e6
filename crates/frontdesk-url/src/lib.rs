//! frontdesk url layer.
