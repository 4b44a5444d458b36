/* policy.h: filled next */
