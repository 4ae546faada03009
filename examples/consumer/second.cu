// A second translation unit that includes every cuprim header: a definition in a header that is not inline (or a
// template) is then defined twice in this program, and the link fails.
#include <cuprim/cuprim.cuh>
#include <cuprim/ooc.cuh>

bool consumer_second_unit_sees_device() { return cuprim::has_device(); }
